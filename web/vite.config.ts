import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

// Pre-compressed copies of the built files, written after the bundle is final (the service serves
// .br/.gz when the browser accepts them).
function precompress(): Plugin {
  return {
    name: 'precompress',
    apply: 'build',
    enforce: 'post',
    writeBundle(options, bundle) {
      const dir = options.dir ?? 'dist';
      for (const name of Object.keys(bundle)) {
        if (!/\.(js|css|html|svg|json)$/.test(name)) continue;
        const buf = readFileSync(join(dir, name));
        if (buf.length < 1024) continue;
        writeFileSync(join(dir, `${name}.gz`), gzipSync(buf, { level: 9 }));
        writeFileSync(join(dir, `${name}.br`), brotliCompressSync(buf, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }));
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
    setupFiles: ['test/setup.ts'],
  },
});
