/** The node cannot take writes: its journal failed (fail-stop) or it stopped. */
export class EngineUnavailableError extends Error {
  readonly code = 'ENGINE_UNAVAILABLE';
}
