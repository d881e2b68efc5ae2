export * from './wire-constants';
export * from './client-id';
export * from './checksum';
export * from './u64';
