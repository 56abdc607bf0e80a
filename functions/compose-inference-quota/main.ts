#!/usr/bin/env node
import { serve } from '../lib/sdk.js';
import { compose } from './compose.js';

serve('compose-inference-quota', compose);
