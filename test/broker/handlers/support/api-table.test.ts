import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { apiTable } from '../../../../broker/src/handlers/support/api-table.js';
import { buildHandlers } from '../../../../broker/src/handlers/support/registry.js';
import { parseVersions } from '../../../../broker/src/protocol/versions.js';

describe('API registry', () => {
  it('docs/compatibility.md lists exactly the registered APIs and versions', () => {
    const doc = readFileSync(new URL('../../../../docs/compatibility.md', import.meta.url), 'utf8');
    expect(doc).toContain(apiTable(buildHandlers()).trim());
  });

  it('advertises only versions inside each definition', () => {
    for (const h of buildHandlers()) {
      const v = parseVersions(h.api.request.validVersions);
      expect(h.minVersion).toBeGreaterThanOrEqual(v.min);
      expect(h.maxVersion).toBeLessThanOrEqual(v.max);
    }
  });
});
