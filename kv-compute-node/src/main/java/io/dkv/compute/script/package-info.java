/**
 * Redis's scripts and functions in LuaJ (EVAL, FCALL...): each run is one client transaction over any keys, and script
 * bodies and function libraries live in the store at named keys, so that every compute node serves them.
 */
package io.dkv.compute.script;
