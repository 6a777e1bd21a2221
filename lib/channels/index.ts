// The channels context's public entry: what other contexts, the functions and the CLIs use of it.

export type { ChannelOverview } from './admin.ts';
export { listChannels, syncChannelNow } from './admin.ts';
export type { FeedAnswer, FeedConditions } from './export-feeds.ts';
export { bookingsFeed, itemFeed } from './export-feeds.ts';
export { maskFeedAddress } from './feed-address.ts';
export type { FeedRequest, FeedResponse } from './feed-fetch.ts';
export { fetchFeed } from './feed-fetch.ts';
export type { FeedScope } from './feed-token-repository.ts';
export { listFeedTokens, resolveFeedToken, rotateFeedToken } from './feed-tokens.ts';
export { READ_BUDGET_MS } from './read-budget.ts';
export type { ChannelRoundReport } from './round.ts';
export { syncChannels } from './round.ts';
export { getChannelStates } from './state-repository.ts';
export type { ChannelSyncDeps, ChannelSyncResult } from './sync.ts';
