import { type Route } from './context';

/** A route whose path matched, with its parameters. */
export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

interface CompiledRoute {
  route: Route;
  regex: RegExp;
  names: string[];
}

/** Finds the route of a method and path; distinguishes "no such path" from "wrong method". */
export class Router {
  readonly #routes: CompiledRoute[];

  constructor(routes: readonly Route[]) {
    this.#routes = routes.map((route) => {
      const names: string[] = [];
      const source = route.pattern.replace(/:([A-Za-z]+)/g, (_match, name: string) => {
        names.push(name);
        return '([^/]+)';
      });
      return { route, regex: new RegExp(`^${source}/?$`), names };
    });
  }

  /** The matching route, `'method-not-allowed'`, or undefined. */
  match(method: string, path: string): RouteMatch | 'method-not-allowed' | undefined {
    let pathMatched = false;
    for (const { route, regex, names } of this.#routes) {
      const found = regex.exec(path);
      if (!found) continue;
      pathMatched = true;
      if (route.method !== method) continue;
      const params: Record<string, string> = {};
      names.forEach((name, index) => {
        params[name] = decodeURIComponent(found[index + 1] ?? '');
      });
      return { route, params };
    }
    return pathMatched ? 'method-not-allowed' : undefined;
  }
}
