// Maps a JSON pointer (RFC 6901) to a range of the JSON text, so a validator's
// `{pointer, message}` can be marked inline in the editor. The scanner records where every
// value (and every object key) starts and ends; it tolerates broken text by stopping at the
// first syntax error and keeping what it saw, so the longest resolvable prefix still maps.

export interface TextRange {
  from: number;
  to: number;
}

interface Node {
  range: TextRange;
  keyRange?: TextRange; // for object members: the quoted key
  children?: Map<string, Node>; // object members by key, array items by index ("0", "1", ...)
}

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/** Splits a JSON pointer into its reference tokens ("" is the root: no tokens). */
export function parsePointer(pointer: string): string[] {
  if (pointer === '' || pointer === '/') return [];
  if (!pointer.startsWith('/')) throw new Error(`not a JSON pointer: "${pointer}"`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function joinPointer(tokens: readonly (string | number)[]): string {
  return tokens.map((t) => '/' + String(t).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

class Scanner {
  pos = 0;
  constructor(private readonly text: string) {}

  fail(message: string): never {
    throw new JsonSyntaxError(message, Math.min(this.pos, this.text.length));
  }

  skipWs(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.pos++;
      else break;
    }
  }

  value(into: { node?: Node }): void {
    this.skipWs();
    const start = this.pos;
    const c = this.text[this.pos];
    const node: Node = { range: { from: start, to: start } };
    into.node = node;
    if (c === '{') this.object(node);
    else if (c === '[') this.array(node);
    else if (c === '"') this.string();
    else if (c !== undefined && /[-0-9]/.test(c)) this.number();
    else if (this.text.startsWith('true', this.pos)) this.pos += 4;
    else if (this.text.startsWith('false', this.pos)) this.pos += 5;
    else if (this.text.startsWith('null', this.pos)) this.pos += 4;
    else this.fail(c === undefined ? 'unexpected end of text' : `unexpected character '${c}'`);
    node.range.to = this.pos;
  }

  object(node: Node): void {
    node.children = new Map();
    this.pos++; // {
    this.skipWs();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return;
    }
    for (;;) {
      this.skipWs();
      if (this.text[this.pos] !== '"') this.fail('expected a quoted key');
      const keyFrom = this.pos;
      const key = this.string();
      const keyRange = { from: keyFrom, to: this.pos };
      this.skipWs();
      if (this.text[this.pos] !== ':') this.fail("expected ':' after the key");
      this.pos++;
      const holder: { node?: Node } = {};
      try {
        this.value(holder);
      } finally {
        if (holder.node) {
          holder.node.keyRange = keyRange;
          node.children.set(key, holder.node);
        } else {
          node.children.set(key, { range: keyRange, keyRange });
        }
        node.range.to = this.pos;
      }
      if (this.afterItem('}')) return;
    }
  }

  /** After a member or element: true at the closing bracket, false after a comma. */
  private afterItem(close: '}' | ']'): boolean {
    this.skipWs();
    const c = this.text[this.pos];
    if (c === ',' || c === close) {
      this.pos++;
      return c === close;
    }
    return this.fail(`expected ',' or '${close}'`);
  }

  array(node: Node): void {
    node.children = new Map();
    this.pos++; // [
    this.skipWs();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return;
    }
    for (let i = 0; ; i++) {
      const holder: { node?: Node } = {};
      try {
        this.value(holder);
      } finally {
        if (holder.node) node.children.set(String(i), holder.node);
        node.range.to = this.pos;
      }
      if (this.afterItem(']')) return;
    }
  }

  string(): string {
    const t = this.text;
    const start = ++this.pos;
    let out = '';
    let chunk = start;
    while (this.pos < t.length) {
      const c = t[this.pos];
      if (c === '"') {
        out += t.slice(chunk, this.pos);
        this.pos++;
        return out;
      }
      if (c === '\\') {
        out += t.slice(chunk, this.pos);
        const e = t[this.pos + 1];
        const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
        if (e !== undefined && e in simple) {
          out += simple[e];
          this.pos += 2;
        } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(t.slice(this.pos + 2, this.pos + 6))) {
          out += String.fromCharCode(parseInt(t.slice(this.pos + 2, this.pos + 6), 16));
          this.pos += 6;
        } else {
          this.fail('bad escape in string');
        }
        chunk = this.pos;
        continue;
      }
      if (c === '\n') this.fail('unterminated string');
      this.pos++;
    }
    this.fail('unterminated string');
  }

  number(): void {
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(this.text.slice(this.pos, this.pos + 64));
    if (!m || m[0] === '-') this.fail('bad number');
    this.pos += m[0].length;
  }
}

export interface LocatedJson {
  /** The first syntax error, if any (the tree then covers only the text before it). */
  syntaxError?: JsonSyntaxError;
  /** The text range for a pointer: the value itself, or for a pointer that does not fully
   *  resolve (a missing key), the deepest existing ancestor's key or value. */
  locate(pointer: string): TextRange;
}

export function locateJson(text: string): LocatedJson {
  const scanner = new Scanner(text);
  const root: { node?: Node } = {};
  let syntaxError: JsonSyntaxError | undefined;
  try {
    scanner.value(root);
    scanner.skipWs();
    if (scanner.pos < text.length) scanner.fail('unexpected text after the document');
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e;
    syntaxError = e;
  }
  const whole: TextRange = { from: 0, to: text.length };
  return {
    syntaxError,
    locate(pointer: string): TextRange {
      const top = root.node;
      if (!top) return whole;
      let node: Node = top;
      let tokens: string[];
      try {
        tokens = parsePointer(pointer);
      } catch {
        return node.range;
      }
      if (tokens.length === 0) return firstLine(text, node.range);
      for (const token of tokens) {
        const next: Node | undefined = node.children?.get(token);
        // A missing member: point at the parent's key (or its opening line) rather than
        // the whole parent, which could span the document.
        if (!next) return node.keyRange ?? firstLine(text, node.range);
        node = next;
      }
      // A value that spans lines (object/array) is marked on its key, scalars on themselves.
      if (node.children && node.keyRange) return node.keyRange;
      return node.range.to > node.range.from ? node.range : (node.keyRange ?? node.range);
    },
  };
}

function firstLine(text: string, r: TextRange): TextRange {
  const nl = text.indexOf('\n', r.from);
  return { from: r.from, to: nl === -1 || nl > r.to ? r.to : nl };
}
