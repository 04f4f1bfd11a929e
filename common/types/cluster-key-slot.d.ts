// Types for cluster-key-slot (the CRC16 slot function ioredis uses; the package ships none).
declare module 'cluster-key-slot' {
  /** Redis Cluster slot (0..16383) of a key, honouring its {hash tag}. */
  export default function calculateSlot(key: string | Buffer): number;
}
