declare module 'swagger-ui-dist' {
  /** The folder holding swagger-ui's static assets. */
  export function getAbsoluteFSPath(): string;
  const swaggerUiDist: { getAbsoluteFSPath(): string };
  export default swaggerUiDist;
}
