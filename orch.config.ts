import { defineConfig } from './core/config/defineConfig.js';

// The project's own config: the shipped fixtures, built with the portable CPU preset.
// Layout fixtures need a rank layout (orch build fixtures/layouts --layout 3x3 --rank-domain 4,4,2).
export default defineConfig({
  modules: ['fixtures/**/*.py', '!fixtures/layouts/**'],
  preset: 'cpu',
});
