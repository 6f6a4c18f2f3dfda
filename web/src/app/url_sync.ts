// Everything the user sees is reproducible from the URL: the preset or the scenario texts and
// the speed, written (debounced) with history.replaceState; the embed's "Open in playground"
// link carries the same state without `embed`.

import { writeUrlState, type UrlState } from '../lib/url_state';
import { $as } from './dom';
import { DEFAULT_SPEED } from './playback';
import type { Scenarios } from './scenarios';

const URL_DELAY_MS = 250;

export class UrlSync {
  embed = false;
  private timer?: number;

  constructor(
    private readonly docs: Scenarios,
    private readonly speed: () => number,
  ) {}

  schedule(): void {
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => void this.write(), URL_DELAY_MS);
  }

  async write(): Promise<void> {
    const q = await this.query(this.embed);
    history.replaceState(null, '', `${location.pathname}${q}${location.hash}`);
    $as<HTMLAnchorElement>('open-full').href = `${location.pathname}${await this.query(false)}`;
  }

  private async query(embed: boolean): Promise<string> {
    const s: UrlState = { embed, autoplay: false };
    if (this.docs.preset) s.preset = this.docs.preset.name;
    else {
      s.scenario = this.docs.texts.a;
      if (this.docs.compare) s.compare = this.docs.texts.b;
    }
    if (this.speed() !== DEFAULT_SPEED) s.speed = this.speed();
    return writeUrlState(s);
  }
}
