export { AuthModule } from './auth.module';
export { generateToken, hashToken, parseBearer } from './core/token';
