// The default theme plus <PlaygroundEmbed>, the live demo used by docs/demos/*.md.
import DefaultTheme from 'vitepress/theme';
import type { Theme } from 'vitepress';
import PlaygroundEmbed from './PlaygroundEmbed.vue';
import './custom.css';

export default {
  extends: DefaultTheme,
  enhanceApp({ app }) {
    app.component('PlaygroundEmbed', PlaygroundEmbed);
  },
} satisfies Theme;
