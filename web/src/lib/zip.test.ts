import { describe, expect, it } from 'vitest';
import { crc32, zipFiles } from './zip';

describe('zip', () => {
  it('computes the standard CRC-32', () => {
    expect(crc32(new TextEncoder().encode('123456789')).toString(16)).toBe('cbf43926');
  });
  it('writes local headers, a central directory and the end record', () => {
    const z = zipFiles([
      { name: 'a.prom', text: 'x 1\n' },
      { name: 'b.prom', text: 'y 2\n' },
    ]);
    const v = new DataView(z.buffer);
    expect(v.getUint32(0, true)).toBe(0x04034b50);
    expect(v.getUint32(z.length - 22, true)).toBe(0x06054b50);
    expect(v.getUint16(z.length - 22 + 10, true)).toBe(2);
  });
});
