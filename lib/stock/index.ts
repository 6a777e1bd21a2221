// The stock context's public entry: what other contexts, the functions and the CLIs use of it.
export { capacityOf } from './capacity.ts';
export {
  COUNTER_FIELDS,
  counterId,
  counterValues,
  holdStockAction,
  indexStockCounters,
  parseCounterId,
  queryStockRange,
  queryStockRanges,
  readStock,
  releaseStockAction,
  takeStockAction,
} from './repository.ts';
