/** Written per deployment by site/build.ts as /site-config.js, which the browser loads beside the bundle. */
declare module "site:config" {
  const config: unknown;
  export default config;
}
