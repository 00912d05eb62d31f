"""A tiny shop inventory: the example repository of the README's main job."""
