// Redis key names live in common/keys.ts (shared with the archiver).
export { Keys, entryId, baseOfEntryId, escapeGroupId, KEY_LAYOUT_VERSION, UPGRADABLE_LAYOUTS, partitionTag } from '../../../../common/keys.js';
