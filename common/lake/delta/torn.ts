// A Delta commit file that does not parse. The protocol requires commits to be
// written atomically (put-if-absent: S3 If-None-Match, link(2) on a local
// folder, storage/*.ts), so a half-written `<version>.json` means a writer
// crashed mid-write on a store that is not atomic (a copied lake, NFS, a
// foreign writer). Its version exists: no writer can commit it again, and no
// reader can replay past it. The archiver never deletes or rewrites it: the
// table stalls (RN4008, table-stall.ts) until an operator moves it away or
// restores it (docs/operations.md).
import { RunnelError } from '../../errors.js';

export class TornCommit extends RunnelError {
  constructor(readonly file: string, cause: Error) {
    super('ARCHIVER_DELTA_COMMIT_TORN', `${file} is not valid JSON (${cause.message}); the table is stalled until the file is repaired or moved out of _delta_log`, { cause });
  }
}
