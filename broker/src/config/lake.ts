// Where the broker finds the lake of tiered topics: the `lake` setting, else
// the folder `runnel archiver --data-dir` uses by default, <data.dir>/lake.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export function lakeUrl(lake: string, dataDir: string): string {
  return lake !== '' ? lake : pathToFileURL(resolve(dataDir, 'lake')).href;
}

/** s3.force.path.style: '' means true when an endpoint is given (as the archiver's RUNNEL_S3_FORCE_PATH_STYLE). */
export function s3PathStyle(setting: string, endpoint: string): boolean {
  if (setting === '') return endpoint !== '';
  return setting.trim().toLowerCase() === 'true';
}
