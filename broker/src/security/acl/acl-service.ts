// The broker's authorization service: the settings (authorizer.class.name,
// super.users, allow.everyone.if.no.acl.found), a cache of the stored ACL
// bindings that follows the store's version counter, and the operations the
// ACL handlers need. Off (no authorizer.class.name): everything is allowed and
// the ACL APIs answer SECURITY_DISABLED, as in Kafka.
import { RunnelError } from '../../../../common/errors.js';
import type { Logger } from '../../../../common/logger/logger.js';
import type { Session } from '../session.js';
import type { AclStore } from './acl-store.js';
import { authorize, authorizeAnyOfType, type AuthorizerSettings } from './authorizer.js';
import { bindingKey, filterMatches, type AclBinding, type AclFilter } from './model.js';

/** Kafka's authorizer classes; either one turns authorization on (both mean the same rules here). */
export const KAFKA_AUTHORIZERS: readonly string[] = ['org.apache.kafka.metadata.authorizer.StandardAuthorizer', 'kafka.security.authorizer.AclAuthorizer'];

/** Is authorization on for this authorizer.class.name? Throws for a class Runnel does not provide. */
export function authorizerEnabled(className: string): boolean {
  const name = className.trim();
  if (name === '') return false;
  if (KAFKA_AUTHORIZERS.includes(name)) return true;
  throw new RunnelError('CONFIG_INVALID', `authorizer.class.name=${name} is not supported; Runnel implements Kafka's ACL authorizer: use ${KAFKA_AUTHORIZERS.join(' or ')}, or leave it empty to turn authorization off`);
}

/** super.users: principals separated by semicolons ("User:admin;User:broker"). */
export function parseSuperUsers(value: string): Set<string> {
  return new Set(value.split(';').map((s) => s.trim()).filter((s) => s !== ''));
}

export interface AclSettings {
  authorizerClassName: string;
  superUsers: string;
  allowEveryoneIfNoAclFound: boolean;
  /** How often the store's version counter is read (a change reaches every broker within this plus one load). */
  reloadIntervalMs?: number;
}

export class AclService {
  readonly enabled: boolean;
  private readonly settings: AuthorizerSettings;
  /** The loaded bindings by resource type (a check only looks at its resource's type). */
  private byType = new Map<number, AclBinding[]>();
  private version = -1;
  private timer: NodeJS.Timeout | null = null;
  private polling = false;
  private failing = false;
  private readonly reloadIntervalMs: number;

  constructor(s: AclSettings, private readonly store: AclStore | null, private readonly logger?: Logger) {
    this.enabled = authorizerEnabled(s.authorizerClassName);
    this.settings = { superUsers: parseSuperUsers(s.superUsers), allowEveryoneIfNoAclFound: s.allowEveryoneIfNoAclFound };
    this.reloadIntervalMs = s.reloadIntervalMs ?? 250;
  }

  /** Loads the bindings and follows changes (only when authorization is on). */
  async start(): Promise<void> {
    if (!this.enabled || !this.store) return;
    await this.reload();
    this.timer = setInterval(() => void this.poll(), this.reloadIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async poll(): Promise<void> {
    if (this.polling || !this.store) return;
    this.polling = true;
    try {
      if ((await this.store.version()) !== this.version) await this.reload();
      if (this.failing) this.logger?.info('ACL reload works again');
      this.failing = false;
    } catch (e) {
      // Said once per outage, not at every poll.
      if (!this.failing) this.logger?.warn('ACL reload failed; the last loaded ACLs stay in force', { error: e instanceof Error ? e.message : String(e) });
      this.failing = true;
    } finally {
      this.polling = false;
    }
  }

  private async reload(): Promise<void> {
    if (!this.store) return;
    const { version, bindings } = await this.store.load();
    const byType = new Map<number, AclBinding[]>();
    for (const b of bindings) {
      const list = byType.get(b.resourceType);
      if (list) list.push(b);
      else byType.set(b.resourceType, [b]);
    }
    this.byType = byType;
    this.version = version;
  }

  /** May the session perform `op` on the resource? Always true with authorization off. */
  allowed(session: Session, op: number, resourceType: number, name: string): boolean {
    if (!this.enabled) return true;
    return authorize(this.byType.get(resourceType) ?? [], this.settings, { principal: session.principal, host: session.clientAddress }, op, resourceType, name);
  }

  /** May the session perform `op` on some resource of the type (Kafka's authorizeByResourceType)? */
  allowedAnyOfType(session: Session, op: number, resourceType: number): boolean {
    if (!this.enabled) return true;
    return authorizeAnyOfType(this.byType.get(resourceType) ?? [], this.settings, { principal: session.principal, host: session.clientAddress }, op, resourceType);
  }

  private requireStore(): AclStore {
    if (!this.store) throw new RunnelError('STORAGE_UNAVAILABLE', 'no ACL store');
    return this.store;
  }

  /** The stored bindings matching the filter, read from the store (not the cache). */
  async describe(filter: AclFilter): Promise<AclBinding[]> {
    return (await this.requireStore().load()).bindings.filter((b) => filterMatches(filter, b));
  }

  async create(bindings: readonly AclBinding[]): Promise<void> {
    await this.requireStore().add(bindings);
    await this.reload();
  }

  /** Removes every binding some filter matches; per filter, the bindings it matched. */
  async delete(filters: readonly AclFilter[]): Promise<AclBinding[][]> {
    const store = this.requireStore();
    const { bindings } = await store.load();
    const matched = filters.map((f) => bindings.filter((b) => filterMatches(f, b)));
    const unique = new Map<string, AclBinding>();
    for (const m of matched) for (const b of m) unique.set(bindingKey(b), b);
    if (unique.size > 0) await store.remove([...unique.values()]);
    await this.reload();
    return matched;
  }
}
