// The client commands: those that speak the Kafka protocol (topic, produce, consume, group, acl,
// user, quota) and the Schema Registry's REST API (schema):
// their usage and how each runs. runClientCommand prints --help, turns a usage
// error into the usage and exit code 2, and a failure (a Kafka error by its
// name, a refused connection) into one line on stderr and exit code 1.
import { CliUsageError } from '../kafka/errors.js';
import { TOPIC_USAGE } from './topic.js';
import { PRODUCE_USAGE } from './produce.js';
import { CONSUME_USAGE } from './consume.js';
import { GROUP_USAGE } from './group.js';
import { ACL_USAGE } from './acl.js';
import { SCHEMA_USAGE } from './schema.js';
import { USER_USAGE } from './user.js';
import { QUOTA_USAGE } from './quota.js';

interface ClientCommand {
  summary: string;
  usage: string;
  run(args: string[]): Promise<void>;
}

export const CLIENT_COMMANDS: Readonly<Record<string, ClientCommand>> = {
  topic: { summary: 'create, list, describe, alter, grow and delete topics', usage: TOPIC_USAGE, run: async (a) => (await import('./topic.js')).topicCommand(a) },
  produce: { summary: 'produce records from stdin, one per line', usage: PRODUCE_USAGE, run: async (a) => (await import('./produce.js')).produceCommand(a) },
  consume: { summary: 'print records of a topic, by partition or in a consumer group', usage: CONSUME_USAGE, run: async (a) => (await import('./consume.js')).consumeCommand(a) },
  group: { summary: 'list, describe (lag), reset offsets of and delete consumer groups', usage: GROUP_USAGE, run: async (a) => (await import('./group.js')).groupCommand(a) },
  acl: { summary: 'list, create and delete ACLs', usage: ACL_USAGE, run: async (a) => (await import('./acl.js')).aclCommand(a) },
  user: { summary: 'create, list and delete SCRAM credentials of users', usage: USER_USAGE, run: async (a) => (await import('./user.js')).userCommand(a) },
  quota: { summary: 'describe and alter client quotas of users, client ids and IPs', usage: QUOTA_USAGE, run: async (a) => (await import('./quota.js')).quotaCommand(a) },
  schema: { summary: 'subjects, schemas and compatibility in a Schema Registry (Confluent\'s REST API)', usage: SCHEMA_USAGE, run: async (a) => (await import('./schema.js')).schemaCommand(a) },
};

/** Lines for the top-level usage, aligned like its other commands. */
export function clientCommandsUsage(): string {
  return Object.entries(CLIENT_COMMANDS).map(([n, c]) => `  ${n.padEnd(10)} ${c.summary}\n`).join('');
}

/** Runs `command`; resolves with the exit code. */
export async function runClientCommand(command: string, args: string[]): Promise<number> {
  const cmd = CLIENT_COMMANDS[command];
  if (!cmd) throw new Error(`unknown command ${command}`);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(cmd.usage);
    return 0;
  }
  try {
    await cmd.run(args);
    return 0;
  } catch (e) {
    if (e instanceof CliUsageError) {
      process.stderr.write(`runnel ${command}: ${e.message}\n\n${cmd.usage}`);
      return 2;
    }
    process.stderr.write(`runnel ${command}: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}
