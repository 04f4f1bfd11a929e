// Shared by DescribeConfigs / AlterConfigs / IncrementalAlterConfigs.
export const ResourceType = { TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8 } as const;
