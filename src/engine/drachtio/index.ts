export { DrachtioEngine, type DrachtioEngineOptions } from './engine.js';
export type { CarrierDirectory, CarrierGateway } from './carriers.js';
