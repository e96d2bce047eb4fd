// Layer rules (docs/architecture.md): core/ is framework-free, graphql/ never reaches
// persistence/, typeorm only in persistence/ (and the database platform), and modules meet
// only through each other's index.ts, persistence included: an entity names another module's
// table for a foreign key (`@ManyToOne('run')`) instead of importing its entity.
'use strict';
module.exports = {
  forbidden: [
    {
      name: 'core-is-framework-free',
      severity: 'error',
      from: { path: '^src/(modules/[^/]+/core|common|agent/runtime)/' },
      to: { path: '(^|/)node_modules/(@nestjs|typeorm|graphql|@apollo|pg|@electric-sql)/' },
    },
    {
      name: 'graphql-never-reaches-persistence',
      severity: 'error',
      from: { path: '^src/modules/[^/]+/graphql/' },
      to: { path: '^src/modules/[^/]+/persistence/' },
    },
    {
      name: 'typeorm-only-in-persistence',
      severity: 'error',
      from: { path: '^src/modules/[^/]+/(core|graphql)/' },
      to: { path: '(^|/)node_modules/typeorm/' },
    },
    {
      name: 'modules-meet-through-index',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: {
        path: '^src/modules/([^/]+)/(?!index\\.ts$)',
        pathNot: ['^src/modules/$1/'],
      },
    },
    {
      name: 'outside-meets-modules-through-index',
      comment:
        'The command line and the demo data use a module through its index.ts only, as other modules do.',
      severity: 'error',
      from: { path: '^src/(cli|demo)/' },
      to: { path: '^src/modules/[^/]+/(?!index\\.ts$)' },
    },
    {
      name: 'modules-expose-no-repositories-or-entities',
      comment: 'A module exposes services and ports; its repositories and entities stay inside it.',
      severity: 'error',
      from: { path: '^src/modules/[^/]+/index\\.ts$' },
      to: {
        path: '^src/modules/[^/]+/persistence/.+\\.(repository|entity)\\.ts$',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'agent-knows-no-graphql-or-modules',
      severity: 'error',
      from: { path: '^src/agent/' },
      to: { path: ['^src/modules/', '(^|/)node_modules/(@nestjs/graphql|graphql)/'] },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { pathNot: '\\.entity\\.ts$' } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '\\.spec\\.ts$' },
  },
};
