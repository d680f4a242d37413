import { defineConfig } from 'vite';

/**
 * The dashboard's build: hashed bundles under assets/ (the service caches them for a year) and an
 * index.html that names them. No inline script or style is emitted, which the service's CSP requires.
 * `npm run dev` proxies the API to a service on :8080, so the app and the API share an origin.
 */
export default defineConfig({
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The CSP has no 'unsafe-inline': every asset must be a file, however small.
    assetsInlineLimit: 0,
    sourcemap: false,
    target: 'es2022',
    rolldownOptions: {
      // React libraries mark their modules "use client" for server components; an SPA has none to keep.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  oxc: { jsx: { runtime: 'automatic' } },
  server: {
    proxy: Object.fromEntries(
      ['/cloud', '/auth', '/games', '/uploads', '/avatars', '/devices', '/docs', '/openapi.json'].map(
        (prefix) => [prefix, 'http://127.0.0.1:8080'],
      ),
    ),
  },
});
