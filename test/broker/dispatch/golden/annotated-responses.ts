// Response frames spelled out field by field from Kafka's message definitions,
// for requests of requests.json / hand-requests.ts (see golden.test.ts).
import { frame } from './hand-requests.js';

export const ANNOTATED_RESPONSES: Record<string, Buffer> = {};
