// Saves text as a file through a temporary object URL.
export function download(name: string, text: string, type: string): void {
  saveBlob(name, new Blob([text], { type }));
}

export function downloadBytes(name: string, bytes: Uint8Array<ArrayBuffer> | Blob, type: string): void {
  saveBlob(name, bytes instanceof Blob ? bytes : new Blob([bytes], { type }));
}

function saveBlob(name: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

export function mimeFor(name: string): string {
  if (name.endsWith('.json')) return 'application/json';
  if (name.endsWith('.csv')) return 'text/csv';
  return 'text/plain; version=0.0.4'; // Prometheus text exposition
}
