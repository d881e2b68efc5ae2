import { Module } from '@nestjs/common';
import { StreamsModule } from '../streams/streams.module';
import { GroupsController } from './groups.controller';
import { GroupsState } from './groups.state';

@Module({
  imports: [StreamsModule],
  controllers: [GroupsController],
  providers: [GroupsState],
})
export class GroupsModule {}
