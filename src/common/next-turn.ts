/** Gives the event loop a turn (other requests' callbacks run) before going on: for long work done in batches. */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));
