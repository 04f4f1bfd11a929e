import { f, message, s, type ApiDef } from '../schema.js';

export const DescribeLogDirs = {
  apiKey: 35,
  name: 'DescribeLogDirs',
  request: message('DescribeLogDirsRequest', '1-4', '2+', [
    s('Topics', '[]DescribableLogDirTopic', '0+', [
      f('Topic', 'string', '0+'),
      f('Partitions', '[]int32', '0+'),
    ], { nullable: '0+' }),
  ]),
  response: message('DescribeLogDirsResponse', '1-4', '2+', [
    f('ThrottleTimeMs', 'int32', '0+'),
    f('ErrorCode', 'int16', '3+'),
    s('Results', '[]DescribeLogDirsResult', '0+', [
      f('ErrorCode', 'int16', '0+'),
      f('LogDir', 'string', '0+'),
      s('Topics', '[]DescribeLogDirsTopic', '0+', [
        f('Name', 'string', '0+'),
        s('Partitions', '[]DescribeLogDirsPartition', '0+', [
          f('PartitionIndex', 'int32', '0+'),
          f('PartitionSize', 'int64', '0+'),
          f('OffsetLag', 'int64', '0+'),
          f('IsFutureKey', 'bool', '0+'),
        ]),
      ]),
      f('TotalBytes', 'int64', '4+', { default: -1 }),
      f('UsableBytes', 'int64', '4+', { default: -1 }),
    ]),
  ]),
} satisfies ApiDef;
