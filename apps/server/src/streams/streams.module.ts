import { Module } from '@nestjs/common';
import { StreamsController } from './streams.controller';
import { StreamsState } from './streams.state';

@Module({
  controllers: [StreamsController],
  providers: [StreamsState],
  exports: [StreamsState],
})
export class StreamsModule {}
