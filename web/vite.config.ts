import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

// Pre-compressed copies of the built assets: the service serves .br/.gz when the browser accepts them.
function precompress(): Plugin {
  return {
    name: 'precompress',
    apply: 'build',
    generateBundle(_options, bundle) {
      for (const [name, item] of Object.entries(bundle)) {
        if (!/\.(js|css|html|svg|json)$/.test(name)) continue;
        const source = item.type === 'chunk' ? item.code : item.source;
        const buf = Buffer.from(source as string | Uint8Array);
        if (buf.length < 1024) continue;
        this.emitFile({ type: 'asset', fileName: `${name}.gz`, source: gzipSync(buf, { level: 9 }) });
        this.emitFile({ type: 'asset', fileName: `${name}.br`, source: brotliCompressSync(buf, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }) });
      }
    },
  };
}

export default defineConfig({
  plugins: [react(), precompress()],
  build: { target: 'es2022', sourcemap: false, chunkSizeWarningLimit: 400 },
  server: { proxy: { '/v1': 'http://localhost:8000' } },
  test: {
    include: ['test/**/*.test.{ts,tsx}'],
    environment: 'happy-dom',
  },
});
