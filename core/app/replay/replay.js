// The replay page of `contactlab view`: draws the run's geometries (triangle meshes the CLI
// tessellated from the resolved configuration), moves the bodies along trajectory.csv and shows
// the contacts of contacts.csv (point, normal, normal and tangential force arrows scaled by
// magnitude). The CLI bundles this file with three.js (esbuild) and inlines the bundle and the
// run's data into one HTML file, so the page opens from disk and fetches nothing.
import * as THREE from 'three';
import {OrbitControls} from 'three/addons/controls/OrbitControls.js';

const data = JSON.parse(document.getElementById('contactlab-data').textContent);

const canvas = document.getElementById('view');
const renderer = new THREE.WebGLRenderer({canvas, antialias: true});
renderer.setPixelRatio(window.devicePixelRatio);
const background = new THREE.Color(0xf4f5f7);
const scene = new THREE.Scene();
scene.background = background;

// z is up in contactlab's world frame (gravity along −z in every seed scene).
const camera = new THREE.PerspectiveCamera(40, 1, 1e-3, 1e4);
camera.up.set(0, 0, 1);
const controls = new OrbitControls(camera, canvas);
controls.enableDamping = false;

scene.add(new THREE.HemisphereLight(0xffffff, 0x8090a0, 2.2));
const sun = new THREE.DirectionalLight(0xffffff, 1.6);
scene.add(sun);

const palette = [0x3b6fb6, 0xd9822b, 0x3a9d5d, 0xc0392b, 0x8e6bbf, 0x2a9d9d, 0xb8a12a, 0xd45d9a];
const fixedColor = 0xb9bec6;

function posePosition(p) {
  return new THREE.Vector3(p[0], p[1], p[2]);
}
function poseQuaternion(q) {  // contactlab writes (w, x, y, z); three.js takes (x, y, z, w)
  return new THREE.Quaternion(q[1], q[2], q[3], q[0]);
}

// One group per body (posed in the world at each frame), one mesh per geometry in it (at X_BG).
const bodyGroups = data.bodies.map((body) => {
  const group = new THREE.Group();
  group.name = body.name;
  if (body.fixed_pose) {
    group.position.copy(posePosition(body.fixed_pose.p));
    group.quaternion.copy(poseQuaternion(body.fixed_pose.q));
  }
  scene.add(group);
  return group;
});
let movingIndex = 0;
data.bodies.forEach((body) => {
  body.color = body.moving ? palette[movingIndex++ % palette.length] : fixedColor;
});
for (const geometry of data.geometries) {
  const buffer = new THREE.BufferGeometry();
  buffer.setAttribute('position', new THREE.Float32BufferAttribute(geometry.positions, 3));
  buffer.setAttribute('normal', new THREE.Float32BufferAttribute(geometry.normals, 3));
  buffer.setIndex(geometry.indices);
  const body = data.bodies[geometry.body];
  const material = new THREE.MeshStandardMaterial({
    color: body.color,
    roughness: 0.55,
    metalness: 0.1,
    side: geometry.shape === 'half_space' ? THREE.DoubleSide : THREE.FrontSide,
    // The mesh's vertex normals are the surface's on round shapes only (the CLI samples the
    // support mapping); faces and edges are shaded by face.
    flatShading: !['sphere', 'ellipsoid', 'capsule', 'half_space'].includes(geometry.shape),
  });
  const mesh = new THREE.Mesh(buffer, material);
  mesh.name = geometry.name;
  mesh.position.copy(posePosition(geometry.pose.p));
  mesh.quaternion.copy(poseQuaternion(geometry.pose.q));
  bodyGroups[geometry.body].add(mesh);
  if (geometry.shape !== 'half_space') {
    // Edges drawn faintly show a body's rotation, which shading alone hides on a sphere.
    const edges = new THREE.LineSegments(
        new THREE.EdgesGeometry(buffer, 30),
        new THREE.LineBasicMaterial({color: 0x1d2330, transparent: true, opacity: 0.35}));
    mesh.add(edges);
  }
}

// The scene's extent: the camera frames it, and arrows are scaled to it.
const bounds = new THREE.Box3(posePosition(data.bounds.min), posePosition(data.bounds.max));
const center = bounds.getCenter(new THREE.Vector3());
const extent = Math.max(bounds.getSize(new THREE.Vector3()).length(), 1e-3);
camera.near = extent * 1e-3;
camera.far = extent * 100;
camera.position.copy(center).add(new THREE.Vector3(0.9, -1.6, 0.8).multiplyScalar(extent * 0.55));
controls.target.copy(center);
sun.position.copy(center).add(new THREE.Vector3(0.5, -0.8, 1.5).multiplyScalar(extent));
controls.update();

// Contact glyphs, pooled: a point, the unit normal (a fixed length), the normal force and the
// tangential force as arrows of length |f| · scale; the largest force in the kept frames is a
// quarter of the scene's extent.
const contactGroup = new THREE.Group();
scene.add(contactGroup);
const maxForce = Math.max(data.contacts.max_normal_force_N, data.contacts.max_tangential_force_N);
const forceScale = maxForce > 0 ? (0.25 * extent) / maxForce : 0;
const normalLength = 0.06 * extent;
const pointRadius = 0.008 * extent;
const pointGeometry = new THREE.SphereGeometry(pointRadius, 12, 8);
const pointMaterial = new THREE.MeshBasicMaterial({color: 0x111111});
const glyphs = [];
function glyph(k) {
  while (glyphs.length <= k) {
    const point = new THREE.Mesh(pointGeometry, pointMaterial);
    const normal = new THREE.ArrowHelper(new THREE.Vector3(0, 0, 1), new THREE.Vector3(),
                                         normalLength, 0x222222, 0.25 * normalLength,
                                         0.12 * normalLength);
    const normalForce = new THREE.ArrowHelper(new THREE.Vector3(0, 0, 1), new THREE.Vector3(), 1,
                                              0xd62828);
    const tangentialForce = new THREE.ArrowHelper(new THREE.Vector3(1, 0, 0),
                                                  new THREE.Vector3(), 1, 0x1f9e89);
    for (const object of [point, normal, normalForce, tangentialForce]) contactGroup.add(object);
    glyphs.push({point, normal, normalForce, tangentialForce});
  }
  return glyphs[k];
}
function setArrow(arrow, origin, vector) {
  const length = vector.length();
  arrow.visible = length > 1e-9 * extent;
  if (!arrow.visible) return;
  arrow.position.copy(origin);
  arrow.setDirection(vector.clone().divideScalar(length));
  arrow.setLength(length, Math.min(0.3 * length, 0.05 * extent), Math.min(0.15 * length,
                                                                          0.025 * extent));
}

const frameCount = data.frames.times_s.length;
const movingBodies = data.bodies.map((b, i) => [b, i]).filter(([b]) => b.moving);
let frame = 0;

function showFrame(index) {
  frame = Math.max(0, Math.min(frameCount - 1, index));
  const poses = data.poses;
  const stride = 7 * movingBodies.length;
  for (const [body, i] of movingBodies) {
    const o = frame * stride + 7 * body.trajectory_index;
    bodyGroups[i].position.set(poses[o], poses[o + 1], poses[o + 2]);
    bodyGroups[i].quaternion.set(poses[o + 4], poses[o + 5], poses[o + 6], poses[o + 3]);
  }
  const rows = data.contacts.rows;
  const first = data.contacts.frame_offsets[frame];
  const last = data.contacts.frame_offsets[frame + 1];
  let shown = 0;
  for (let r = first; r < last; ++r, ++shown) {
    const v = rows.slice(10 * r, 10 * r + 10);
    const g = glyph(shown);
    const origin = new THREE.Vector3(v[0], v[1], v[2]);
    const n = new THREE.Vector3(v[3], v[4], v[5]);
    g.point.position.copy(origin);
    g.point.visible = true;
    setArrow(g.normal, origin, n.clone().multiplyScalar(normalLength));
    g.normal.setLength(normalLength, 0.25 * normalLength, 0.12 * normalLength);
    setArrow(g.normalForce, origin, n.clone().multiplyScalar(v[6] * forceScale));
    setArrow(g.tangentialForce, origin, new THREE.Vector3(v[7], v[8], v[9]).multiplyScalar(
                                            forceScale));
  }
  for (let k = shown; k < glyphs.length; ++k) {
    for (const object of Object.values(glyphs[k])) object.visible = false;
  }
  slider.value = String(frame);
  timeLabel.textContent = `t = ${data.frames.times_s[frame].toFixed(4)} s`;
  contactLabel.textContent = `${shown} contact${shown === 1 ? '' : 's'}`;
  render();
}

// Controls: the slider picks a frame; play advances simulated time at `speed` × real time.
const slider = document.getElementById('slider');
const playButton = document.getElementById('play');
const speedSelect = document.getElementById('speed');
const timeLabel = document.getElementById('time');
const contactLabel = document.getElementById('contacts');
slider.max = String(frameCount - 1);
slider.addEventListener('input', () => {
  pause();
  showFrame(Number(slider.value));
});
let playing = false;
let playClock = 0;  // simulated time of the playback
let lastWall = 0;
function pause() {
  playing = false;
  playButton.textContent = 'Play';
}
playButton.addEventListener('click', () => {
  if (playing) return pause();
  if (frame >= frameCount - 1) showFrame(0);
  playing = true;
  playButton.textContent = 'Pause';
  playClock = data.frames.times_s[frame];
  lastWall = performance.now();
  requestAnimationFrame(tick);
});
function tick(now) {
  if (!playing) return;
  playClock += ((now - lastWall) / 1000) * Number(speedSelect.value);
  lastWall = now;
  const times = data.frames.times_s;
  let next = frame;
  while (next + 1 < frameCount && times[next + 1] <= playClock) ++next;
  if (next !== frame) showFrame(next);
  if (frame >= frameCount - 1) return pause();
  requestAnimationFrame(tick);
}

document.getElementById('title').textContent = data.name;
const notes = [`${frameCount} frames of ${data.frames.count_total} output times`];
if (data.frames.stride > 1)
  notes[0] += ` (every ${data.frames.stride}th, decimated to keep the page responsive)`;
if (data.status !== 'complete') notes.push(`run ${data.status}: the replay ends where it stopped`);
if (forceScale > 0)
  notes.push(`force arrows: ${(1 / forceScale).toPrecision(3)} N per m`);
document.getElementById('notes').textContent = notes.join(' · ');

function render() {
  renderer.render(scene, camera);
}
function resize() {
  const width = canvas.clientWidth;
  const height = canvas.clientHeight;
  renderer.setSize(width, height, false);
  camera.aspect = width / height;
  camera.updateProjectionMatrix();
  render();
}
window.addEventListener('resize', resize);
controls.addEventListener('change', render);
resize();
showFrame(0);

// For scripts driving the page (the browser test, screenshots): frame control and where a body
// is on the screen, in CSS pixels of the canvas.
window.contactlabReplay = {
  frameCount,
  times_s: data.frames.times_s,
  showFrame,
  frame: () => frame,
  screenPosition(bodyName) {
    const i = data.bodies.findIndex((b) => b.name === bodyName);
    if (i < 0) return null;
    const box = new THREE.Box3().setFromObject(bodyGroups[i]);
    const corners = [];
    for (const x of [box.min.x, box.max.x])
      for (const y of [box.min.y, box.max.y])
        for (const z of [box.min.z, box.max.z]) corners.push(new THREE.Vector3(x, y, z));
    const rect = canvas.getBoundingClientRect();
    const xs = [], ys = [];
    for (const c of corners) {
      c.project(camera);
      xs.push(rect.left + ((c.x + 1) / 2) * rect.width);
      ys.push(rect.top + ((1 - c.y) / 2) * rect.height);
    }
    const centre = box.getCenter(new THREE.Vector3()).project(camera);
    return {
      x: rect.left + ((centre.x + 1) / 2) * rect.width,
      y: rect.top + ((1 - centre.y) / 2) * rect.height,
      left: Math.min(...xs), right: Math.max(...xs), top: Math.min(...ys),
      bottom: Math.max(...ys),
    };
  },
  ready: true,
};
