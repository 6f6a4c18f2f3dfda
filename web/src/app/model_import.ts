// "Paste model config.json": a Hugging Face config.json turned into a catalog model entry by
// the simulator's own importer (importHfConfig, the same as `blis catalog import`), shown
// with what it read or the errors it found (JSON pointers into the config), and put into
// the edited scenario on request (inline under /catalog/models, every pool's model).

import type { Diagnostic } from '../protocol';
import type { JsonObject } from '../scenario/knobs';
import { withImportedModel } from '../scenario/import_model';
import { $, $as } from './dom';
import type { Scenarios } from './scenarios';
import type { SimClient } from './sim_client';

/** What the entry says, in one line: the shape a capacity planner checks first. */
export function describeEntry(e: JsonObject): string {
  const n = (k: string) => (typeof e[k] === 'number' ? (e[k] as number) : undefined);
  const parts = [`${String(e['id'])}`];
  const layers = n('num_hidden_layers');
  if (layers !== undefined) parts.push(`${layers} layers`);
  const hidden = n('hidden_size');
  if (hidden !== undefined) parts.push(`hidden ${hidden}`);
  const heads = n('num_attention_heads');
  const kv = n('num_key_value_heads');
  if (heads !== undefined) parts.push(`${heads} heads${kv !== undefined ? ` / ${kv} KV` : ''}`);
  if (e['moe'] && typeof e['moe'] === 'object') parts.push('MoE');
  return parts.join(', ');
}

export class ModelImport {
  private entry?: JsonObject;

  constructor(
    private readonly client: SimClient,
    private readonly docs: Scenarios,
    private readonly replaceEdited: (text: string) => void,
  ) {
    $('hf-import').addEventListener('click', () => void this.import());
    $('hf-use').addEventListener('click', () => this.use());
  }

  private async import(): Promise<void> {
    const config = $as<HTMLTextAreaElement>('hf-config').value;
    const id = $as<HTMLInputElement>('hf-id').value.trim();
    this.entry = undefined;
    $('hf-use').hidden = true;
    if (!config.trim()) {
      this.showErrors([{ pointer: '', message: 'paste the text of a config.json first', severity: 'error' }]);
      return;
    }
    const r = await this.client.importConfig(config, id);
    if (!r.entry) {
      this.showErrors(r.diagnostics);
      return;
    }
    this.entry = JSON.parse(r.entry) as JsonObject;
    const out = $('hf-result');
    out.dataset['state'] = 'ok';
    const head = document.createElement('p');
    head.textContent = `Imported: ${describeEntry(this.entry)}.`;
    const note = document.createElement('p');
    note.className = 'hint';
    note.dataset['testid'] = 'hf-estimate';
    note.textContent =
      'No calibration run covers an imported model: its step times are estimates from the kernel’s physical terms alone.';
    const warnings = document.createElement('ul');
    warnings.append(...r.diagnostics.filter((d) => d.severity === 'warning').map((d) => this.item(d)));
    const pre = document.createElement('pre');
    pre.dataset['testid'] = 'hf-entry';
    pre.textContent = r.entry;
    out.replaceChildren(head, note, ...(warnings.childElementCount ? [warnings] : []), pre);
    $('hf-use').hidden = false;
  }

  private use(): void {
    if (!this.entry) return;
    const doc = this.docs.parsed(this.docs.editing);
    try {
      if (doc === undefined) throw new Error('the scenario’s JSON does not parse; fix it first');
      this.replaceEdited(JSON.stringify(withImportedModel(doc, this.entry), null, 2));
    } catch (e) {
      this.showErrors([{ pointer: '', message: e instanceof Error ? e.message : String(e), severity: 'error' }]);
    }
  }

  private item(d: Diagnostic): HTMLElement {
    const li = document.createElement('li');
    li.className = d.severity;
    const code = document.createElement('code');
    code.textContent = d.pointer || '/';
    li.append(code, document.createTextNode(d.message));
    return li;
  }

  private showErrors(d: Diagnostic[]): void {
    const out = $('hf-result');
    out.dataset['state'] = 'error';
    const head = document.createElement('p');
    head.textContent = 'The config could not be imported:';
    const ul = document.createElement('ul');
    ul.dataset['testid'] = 'hf-errors';
    ul.append(...d.map((x) => this.item(x)));
    out.replaceChildren(head, ul);
  }
}
