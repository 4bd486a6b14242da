// better-sqlite3 compiles from source here (no prebuilt download is reachable); node-gyp must use
// the local Node headers instead of fetching them. pnpm 12 ignores `nodedir` in .npmrc, so the
// setting travels with the repository through this hook.
module.exports = {
  hooks: {
    updateConfig(config) {
      config.extraEnv = { ...config.extraEnv, npm_config_nodedir: process.env.npm_config_nodedir || '/usr' };
      return config;
    },
  },
};
