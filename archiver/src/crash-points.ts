// Fault injection for crash tests only (common/crash-points.ts):
// RUNNEL_ARCHIVER_CRASH_POINTS="after-upload:0.3,after-commit:0.2".
import { crashPointsFrom } from '../../common/crash-points.js';

export const crashPoint = crashPointsFrom(process.env.RUNNEL_ARCHIVER_CRASH_POINTS);
