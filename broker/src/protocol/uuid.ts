export const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

export function uuidFromBytes(b: Buffer): string {
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export function uuidToBytes(s: string): Buffer {
  const b = Buffer.from(s.replace(/-/g, ''), 'hex');
  if (b.length !== 16) throw new Error(`bad uuid ${s}`);
  return b;
}
