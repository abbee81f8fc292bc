// What an app that uses only ClientApp imports: the SDK's bundle test measures what it loads up front.
export { ClientApp } from '../index.js';
