import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { Access, Allow } from '../auth/allow.decorator';
import {
  GRAPHIQL_HEADERS,
  GRAPHIQL_INIT_SCRIPT,
  graphiqlHtml,
  PACKAGED_ASSETS,
  packagedAssetPath,
} from './graphiql-page';

const INIT_SCRIPT = 'countersign-graphiql.js';

/**
 * GraphiQL for admins at `GET /graphiql`, with its assets served from the installed npm
 * packages under `/graphiql/assets/*` (no CDN, works offline). Off, answering 404, when
 * `GRAPHQL_INTROSPECTION=false`. The page itself needs no token; every operation it sends does.
 */
@Controller('graphiql')
export class GraphiqlController {
  private readonly html = graphiqlHtml();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get()
  @Allow(Access.Public)
  page(@Res() res: Response): void {
    if (!this.available(res)) return;
    res.setHeader('Cache-Control', 'no-cache');
    res.type('text/html; charset=utf-8').send(this.html);
  }

  @Get('assets/:name')
  @Allow(Access.Public)
  asset(@Param('name') name: string, @Res() res: Response): void {
    if (!this.available(res)) return;
    if (name === INIT_SCRIPT) {
      res.type('application/javascript; charset=utf-8').send(GRAPHIQL_INIT_SCRIPT);
      return;
    }
    const asset = Object.hasOwn(PACKAGED_ASSETS, name) ? PACKAGED_ASSETS[name] : undefined;
    if (!asset) {
      notFound(res);
      return;
    }
    res.sendFile(packagedAssetPath(asset), {
      headers: { 'Content-Type': asset.type },
      maxAge: '1h',
    });
  }

  private available(res: Response): boolean {
    for (const [name, value] of Object.entries(GRAPHIQL_HEADERS)) res.setHeader(name, value);
    if (this.config.introspection) return true;
    notFound(res);
    return false;
  }
}

// why: a plain 404 written here, not an HttpException (refusals stay Refusals; this is no
// GraphQL operation), in the JSON shape every other client error has.
function notFound(res: Response): void {
  res.status(404).json({ errors: [{ message: 'Not found', extensions: { code: 'NOT_FOUND' } }] });
}
