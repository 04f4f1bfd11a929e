// Redis key names live in common/keys.ts (shared with the archiver).
export { Keys, entryId, baseOfEntryId, escapeGroupId, KEY_LAYOUT_VERSION, META_FIELD, UPGRADABLE_LAYOUTS, partitionTag } from '../../../common/keys.js';
