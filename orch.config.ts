import { defineConfig } from './core/config/defineConfig.js';

// The project's own config: the shipped fixtures, built with the portable CPU preset.
export default defineConfig({
  modules: ['fixtures/**/*.py'],
  preset: 'cpu',
});
