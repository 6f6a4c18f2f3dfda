// Messages between the page and the simulation worker.
export type WorkerRequest = { kind: 'hello' };

export type WorkerResponse =
  | { kind: 'ready'; version: string }
  | { kind: 'error'; message: string };

export function describeResponse(r: WorkerResponse): string {
  switch (r.kind) {
    case 'ready':
      return r.version;
    case 'error':
      return `error: ${r.message}`;
  }
}
