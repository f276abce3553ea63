export { DrachtioEngine, type DrachtioEngineOptions } from './engine.js';
export type { CarrierDirectory, CarrierEntry } from './carriers.js';
