// The view lives in the URL, so a link reproduces it: the scenario (and in compare mode the
// second one) deflated and base64url-encoded, or a preset name; the playback speed; embed
// mode. CompressionStream('deflate-raw') is built into browsers and node >= 18.

export interface UrlState {
  /** Scenario A as JSON text (from `s=`), when the URL carries one. */
  scenario?: string;
  /** Scenario B for compare mode (from `b=`). */
  compare?: string;
  /** A preset name (`preset=`); `scenario` wins when both are present. */
  preset?: string;
  /** Preset for B in compare mode (`bpreset=`). */
  comparePreset?: string;
  /** Simulated seconds per wall second (`speed=`). */
  speed?: number;
  /** Compact embed mode for docs pages (`embed=1`). */
  embed: boolean;
  /** Start playing as soon as the module is ready (`autoplay=1`). */
  autoplay: boolean;
}

async function pipe(data: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const out = new Blob([data as BlobPart]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

function toBase64Url(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(s: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(s)) throw new Error('the link is damaged: unexpected characters in the scenario');
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4);
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** JSON text (minified when it parses) → deflate-raw → base64url. */
export async function encodeText(text: string): Promise<string> {
  let compact = text;
  try {
    compact = JSON.stringify(JSON.parse(text));
  } catch {
    // keep the text as typed: a link may carry a document with errors
  }
  return toBase64Url(await pipe(new TextEncoder().encode(compact), new CompressionStream('deflate-raw')));
}

/** Inverse of encodeText; valid JSON comes back pretty-printed with two spaces. */
export async function decodeText(encoded: string): Promise<string> {
  let bytes: Uint8Array;
  try {
    bytes = await pipe(fromBase64Url(encoded), new DecompressionStream('deflate-raw'));
  } catch {
    throw new Error('the link is damaged: its scenario does not decompress');
  }
  const text = new TextDecoder().decode(bytes);
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export async function readUrlState(search: string): Promise<UrlState> {
  const p = new URLSearchParams(search);
  const state: UrlState = { embed: p.get('embed') === '1', autoplay: p.get('autoplay') === '1' };
  const s = p.get('s');
  const b = p.get('b');
  if (s) state.scenario = await decodeText(s);
  if (b) state.compare = await decodeText(b);
  const preset = p.get('preset');
  if (preset) state.preset = preset;
  const bpreset = p.get('bpreset');
  if (bpreset) state.comparePreset = bpreset;
  const speed = Number(p.get('speed'));
  if (p.has('speed') && Number.isFinite(speed) && speed > 0) state.speed = speed;
  return state;
}

export async function writeUrlState(state: UrlState): Promise<string> {
  const p = new URLSearchParams();
  if (state.embed) p.set('embed', '1');
  if (state.autoplay) p.set('autoplay', '1');
  if (state.scenario !== undefined) p.set('s', await encodeText(state.scenario));
  else if (state.preset) p.set('preset', state.preset);
  if (state.compare !== undefined) p.set('b', await encodeText(state.compare));
  else if (state.comparePreset) p.set('bpreset', state.comparePreset);
  if (state.speed !== undefined) p.set('speed', String(state.speed));
  const q = p.toString();
  return q ? `?${q}` : '';
}
