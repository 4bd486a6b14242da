import { defineConfig } from 'vite';
import solid from 'vite-plugin-solid';

/**
 * Library build of the widget: `dist/widget.js` (ES module, defines the element and exports
 * `mount`) and, with `WIDGET_FORMAT=iife`, `dist/widget.iife.js` (classic script, no global).
 * `scripts/build.ts` runs both and enforces the size budget.
 */
export default defineConfig(() => {
  const iife = process.env.WIDGET_FORMAT === 'iife';
  return {
    plugins: [solid()],
    // Vite picks the `development` export condition unless NODE_ENV is production, which would
    // bundle Solid's dev build (bigger, and it sets a `Solid$$` global): ask for production.
    resolve: { conditions: ['module', 'browser', 'production'] },
    // @urql/core, wonka and graphql.web read process.env.NODE_ENV (stack.md G8).
    define: { 'process.env.NODE_ENV': JSON.stringify('production') },
    build: {
      target: 'es2022',
      outDir: 'dist',
      emptyOutDir: false,
      reportCompressedSize: false,
      lib: {
        entry: iife ? 'src/classic.ts' : 'src/index.ts',
        formats: [iife ? ('iife' as const) : ('es' as const)],
        name: 'AgentTeamsWidget',
        fileName: () => (iife ? 'widget.iife.js' : 'widget.js'),
      },
      // Lib mode does not whitespace-minify ES output by itself (G8).
      // bundlerTimings off: on a busy 2-core machine it prints timing advice on every build.
      rolldownOptions: { output: { minify: true }, checks: { bundlerTimings: false } },
    },
  };
});
