// Client quota enforcement, sans-IO (Kafka's ClientQuotaManager and
// ClientRequestQuotaManager): produce bytes, fetch bytes and request time
// are recorded per quota sensor; a sensor over its bound yields a throttle
// time. The broker answers at once with that throttle time and stops reading
// the connection for as long (KIP-219); a throttled fetch is answered
// without records and is not counted.
import { CONSUMER_BYTE_RATE, PRODUCER_BYTE_RATE, REQUEST_PERCENTAGE, resolveQuota } from './entities.js';
import { SampledRate, throttleMs } from './rate.js';

export interface QuotaSettings {
  /** quota.window.num */
  windowNum: number;
  /** quota.window.size.seconds, in ms */
  windowMs: number;
}

/** Sensors unused this long are dropped (Kafka's inactive sensor expiration: 1 hour). */
const SENSOR_IDLE_MS = 3_600_000;

interface Sensor { rate: SampledRate; lastUsed: number }

export class QuotaManager {
  private quotas: ReadonlyMap<string, ReadonlyMap<string, number>> = new Map();
  private readonly sensors = new Map<string, Sensor>();
  private lastSweep = 0;

  constructor(private readonly settings: QuotaSettings) {}

  /** Replaces the quota configuration (entity key -> quota key -> value). */
  setQuotas(q: ReadonlyMap<string, ReadonlyMap<string, number>>): void {
    this.quotas = q;
  }

  get enabled(): boolean {
    return this.quotas.size > 0;
  }

  /** Records a produce request's bytes; the throttle time (0: within quota). */
  recordProduce(user: string, clientId: string, bytes: number, now: number): number {
    return this.record(PRODUCER_BYTE_RATE, user, clientId, bytes, now, false);
  }

  /** Records a fetch response's bytes; when over quota, takes them back (the answer will hold none) and returns the throttle time. */
  recordFetch(user: string, clientId: string, bytes: number, now: number): number {
    return this.record(CONSUMER_BYTE_RATE, user, clientId, bytes, now, true);
  }

  /** Records time spent on a request, as a percentage of one thread-second; the throttle time. */
  recordRequestTime(user: string, clientId: string, ms: number, now: number): number {
    return this.record(REQUEST_PERCENTAGE, user, clientId, ms / 10, now, false);
  }

  private record(key: string, user: string, clientId: string, value: number, now: number, unrecordIfThrottled: boolean): number {
    if (this.quotas.size === 0) return 0;
    const q = resolveQuota(this.quotas, key, user, clientId);
    if (!q) return 0;
    const id = `${key}\u0000${q.user}\u0000${q.clientId}`;
    let s = this.sensors.get(id);
    if (!s) {
      s = { rate: new SampledRate(this.settings.windowNum, this.settings.windowMs), lastUsed: now };
      this.sensors.set(id, s);
    }
    s.lastUsed = now;
    s.rate.record(value, now);
    const t = throttleMs(s.rate, q.bound, now);
    if (t > 0 && unrecordIfThrottled) s.rate.record(-value, now);
    this.sweep(now);
    return t;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [id, s] of this.sensors) if (now - s.lastUsed > SENSOR_IDLE_MS) this.sensors.delete(id);
  }
}
