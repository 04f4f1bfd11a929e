// The broker logs through the logger shared with the archiver (common/logger).
export { createLogger, redactSecrets, type Level, type Logger } from '../../common/logger/logger.js';
