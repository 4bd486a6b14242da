import { defineElement } from './element.js';

export { defineElement, ELEMENT_NAME } from './element.js';
export { deriveMemberNames, LIMITS } from './limits.js';
export { mount, type WidgetHandle, type WidgetOptions } from './mount.js';

// Loading the module defines the element, as the contract says.
defineElement();
