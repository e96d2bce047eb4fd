import { Module } from '@nestjs/common';

/** HTTP-level platform pieces: health, the GraphiQL page. */
@Module({})
export class PlatformModule {}
