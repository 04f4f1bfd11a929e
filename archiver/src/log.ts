// The archiver logs through the logger shared with the broker (common/logger).
export { createLogger, type Level, type Logger } from '../../common/logger/logger.js';
