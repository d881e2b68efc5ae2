import { Module } from '@nestjs/common';
import { EchoController } from './echo.controller';

/** The whole baseline service: one echo handler. */
@Module({ controllers: [EchoController] })
export class EchoModule {}
