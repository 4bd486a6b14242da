// Entry of the classic-script build: defines the element and exports nothing (no global object).
import { defineElement } from './element.js';

defineElement();
