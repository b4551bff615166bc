-- A declared key may stay on its device (PreferenceDeclaration.isDeviceLocal), on this
-- engine as on a device file: the flag was dropped here before.
ALTER TABLE preference_declaration ADD COLUMN device_local boolean NOT NULL DEFAULT false;
