// The sweep lives in the URL like a scenario does: `#sweep=` carries the document deflated
// and base64url-encoded (lib/url_state's encoding), beside the playground's query string.

import { decodeText, encodeText } from '../lib/url_state';

const KEY = 'sweep';

/** The sweep document in a location hash ("#sweep=..."), or undefined. */
export async function readSweepHash(hash: string): Promise<string | undefined> {
  const v = new URLSearchParams(hash.replace(/^#/, '')).get(KEY);
  return v ? decodeText(v) : undefined;
}

/** The hash for a sweep document ("" for none). */
export async function sweepHash(text: string | undefined): Promise<string> {
  if (text === undefined || text.trim() === '') return '';
  return `#${KEY}=${await encodeText(text)}`;
}
