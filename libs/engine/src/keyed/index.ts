export { KeyedMap, KeyedSet } from './keyed-map';
export { KeyedState, isKeyedState } from './keyed-state';
export { DEFAULT_KEYED_CACHE_ENTRIES, KeyedStore } from './keyed-store';
export { KeyedStateBehindError } from './keyed-state-behind.error';
export {
  EMPTY_KEYED_MARKER,
  type KeyedStateMarker,
  isEmptyMarker,
  parseKeyedMarker,
} from './keyed-state-marker';
export { markerOfRecords } from './records-marker';
