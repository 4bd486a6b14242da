import { fileURLToPath } from 'node:url';
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
    resolve: {
      conditions: ['module', 'browser', 'production'],
      // urql needs only a document's header and text from graphql.web (src/graphql-web-shim.ts):
      // the full parser and printer were 2.8 KiB gzip of the bundle (docs/decisions/0050).
      alias: { '@0no-co/graphql.web': fileURLToPath(new URL('src/graphql-web-shim.ts', import.meta.url)) },
    },
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
      // Lib mode does not whitespace-minify ES output by itself (G8). Pure annotations would only
      // help a bundler re-bundling the file, which cannot drop anything from it (loading it defines
      // the element), and they cost about 90 B gzip; legal comments stay.
      // bundlerTimings off: on a busy 2-core machine it prints timing advice on every build.
      rolldownOptions: {
        // Lets the entry export what its chunks import from it (Solid, the contexts), so shared code
        // stays in widget.js instead of a third file every page would load first.
        preserveEntrySignatures: 'allow-extension' as const,
        output: {
          minify: true,
          comments: { legal: true, annotation: false, jsdoc: false },
          // The module loads parts it may never need (the Chinese strings, the conversation view)
          // as chunks beside it; the classic script has no module loader, so it carries them.
          ...(iife ? { codeSplitting: false } : { chunkFileNames: 'widget-[name]-[hash].js' }),
        },
        checks: { bundlerTimings: false },
      },
    },
  };
});
