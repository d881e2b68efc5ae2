import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';

/** The baseline handler: NestJS's own request/response path with no work in it. */
@Controller()
export class EchoController {
  @MessagePattern('echo')
  echo(data: unknown): unknown {
    return data;
  }
}
