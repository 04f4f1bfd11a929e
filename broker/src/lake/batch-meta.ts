// What a rebuild (rebuild.ts, in a worker) says about each batch it built:
// META_FIELDS numbers per batch in one Float64Array, read on the main thread
// without loading the Parquet and Arrow code.
export const META_FIELDS = 7;
export const M = { BASE: 0, LAST: 1, START: 2, SIZE: 3, COUNT: 4, MIN_TS: 5, MAX_TS: 6 } as const;
